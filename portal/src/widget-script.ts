// The real offers widget in a portal page (the Widget page's preview, the console's offer
// preview): its script is served by this service and defines <offers-widget> once per page.
import { useEffect, useState } from 'react';

/** The widget's own script, served by this service: previews load it from here. */
export const SCRIPT_PATH = '/widget/v1/offers-widget.js';

/** Loads the widget's module once per page (a custom element defines itself once). */
export function useWidgetScript(): boolean {
  const [ready, setReady] = useState(() => !!customElements.get('offers-widget'));
  useEffect(() => {
    if (ready) return;
    let s = document.querySelector<HTMLScriptElement>(`script[src="${SCRIPT_PATH}"]`);
    if (!s) {
      s = document.createElement('script');
      s.type = 'module';
      s.src = SCRIPT_PATH;
      document.head.append(s);
    }
    let live = true;
    void customElements.whenDefined('offers-widget').then(() => live && setReady(true));
    return () => {
      live = false;
    };
  }, [ready]);
  return ready;
}
