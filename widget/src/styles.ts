import { css } from 'lit';

/**
 * Themable through CSS custom properties set by the host page on the element:
 * --offers-accent, --offers-surface, --offers-text, --offers-radius, --offers-font (and
 * --offers-muted, --offers-border, --offers-on-accent). The institution's defaults from the portal
 * come next (--i-*, set by the element), then the built-in light or dark palette. Button text
 * is --_button-text, set by the element: --_on-accent when legible on --_accent, else black or white.
 */
export const styles = css`
  :host {
    display: block;
    container-type: inline-size;
  }
  :host([hidden]) {
    display: none;
  }
  .root {
    --_accent: var(--offers-accent, var(--i-accent, #0a58d0));
    --_on-accent: var(--offers-on-accent, #ffffff);
    --_surface: var(--offers-surface, var(--i-surface, #ffffff));
    --_text: var(--offers-text, var(--i-text, #1a1c21));
    --_muted: var(--offers-muted, #545b68);
    --_border: var(--offers-border, #d9dde5);
    --_track: #e7eaf0;
    --_danger: #b3261e;
    --_ok: #146c2e;
    --_radius: var(--offers-radius, var(--i-radius, 12px));
    font-family: var(
      --offers-font,
      var(--i-font, system-ui, -apple-system, 'Segoe UI', sans-serif)
    );
    color: var(--_text);
    font-size: 15px;
    line-height: 1.45;
  }
  .root.dark {
    --_accent: var(--offers-accent, #8ab4ff);
    --_on-accent: var(--offers-on-accent, #0b1220);
    --_surface: var(--offers-surface, #1b1e24);
    --_text: var(--offers-text, #eef0f4);
    --_muted: var(--offers-muted, #aab2c0);
    --_border: var(--offers-border, #343a45);
    --_track: #2c313b;
    --_danger: #ffb4ab;
    --_ok: #7dd99a;
  }
  ul {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 12px;
    grid-template-columns: repeat(auto-fill, minmax(260px, 1fr));
  }
  article {
    background: var(--_surface);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 16px;
    display: flex;
    flex-direction: column;
    gap: 8px;
    height: 100%;
    box-sizing: border-box;
  }
  .merchant {
    color: var(--_muted);
    font-size: 13px;
    font-weight: 600;
    text-transform: uppercase;
    letter-spacing: 0.04em;
    margin: 0;
  }
  h3 {
    margin: 0;
    font-size: 17px;
    line-height: 1.3;
  }
  .reward {
    font-size: 20px;
    font-weight: 700;
    color: var(--_text);
    margin: 0;
  }
  p {
    margin: 0;
  }
  .desc,
  .meta,
  .reason {
    color: var(--_muted);
    font-size: 14px;
  }
  .terms {
    margin: 0;
    padding: 0;
    list-style: none;
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
  }
  .terms li {
    border: 1px solid var(--_border);
    border-radius: 999px;
    padding: 2px 10px;
    font-size: 13px;
    color: var(--_muted);
  }
  .progress {
    display: grid;
    gap: 4px;
    font-size: 13px;
    color: var(--_muted);
  }
  progress {
    appearance: none;
    width: 100%;
    height: 8px;
    border: 0;
    border-radius: 999px;
    background: var(--_track);
    overflow: hidden;
  }
  progress::-webkit-progress-bar {
    background: var(--_track);
    border-radius: 999px;
  }
  progress::-webkit-progress-value {
    background: var(--_accent);
    border-radius: 999px;
  }
  progress::-moz-progress-bar {
    background: var(--_accent);
    border-radius: 999px;
  }
  .actions {
    margin-top: auto;
    display: flex;
    align-items: center;
    gap: 10px;
    flex-wrap: wrap;
  }
  button {
    font: inherit;
    font-weight: 600;
    border-radius: calc(var(--_radius) * 0.75);
    border: 1px solid var(--_accent);
    background: var(--_accent);
    color: var(--_button-text, var(--_on-accent));
    padding: 8px 16px;
    min-height: 40px;
    min-width: 44px;
    cursor: pointer;
  }
  button:hover {
    filter: brightness(1.08);
  }
  button:focus-visible {
    outline: 3px solid var(--_accent);
    outline-offset: 2px;
  }
  button[disabled] {
    cursor: default;
    filter: none;
  }
  button.added {
    background: transparent;
    color: var(--_ok);
    border-color: var(--_ok);
  }
  .error {
    color: var(--_danger);
    font-size: 14px;
  }
  .state {
    background: var(--_surface);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 20px;
    color: var(--_text);
    display: flex;
    gap: 12px;
    align-items: center;
    flex-wrap: wrap;
  }
  .skeleton article {
    min-height: 150px;
  }
  .skeleton .w40 {
    width: 40%;
  }
  .skeleton .w60 {
    width: 60%;
  }
  .skeleton .w80 {
    width: 80%;
  }
  .skeleton .line {
    height: 12px;
    border-radius: 6px;
    background: var(--_track);
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  @container (max-width: 420px) {
    ul {
      grid-template-columns: 1fr;
    }
  }
`;
