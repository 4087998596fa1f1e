import { createContext, useCallback, useContext, useEffect, useState } from 'react';

/** A tiny history router under /portal (the api serves index.html for every /portal path). */
const BASE = '/portal';

function current(): string {
  const p = window.location.pathname;
  const rel = p.startsWith(BASE) ? p.slice(BASE.length) : p;
  return rel === '' ? '/' : rel;
}

interface RouterValue {
  path: string;
  search: URLSearchParams;
  navigate: (to: string, opts?: { replace?: boolean }) => void;
}

const RouterContext = createContext<RouterValue>({
  path: '/',
  search: new URLSearchParams(),
  navigate: () => undefined,
});

export function RouterProvider({ children }: { children: React.ReactNode }) {
  const [loc, setLoc] = useState(() => ({ path: current(), search: window.location.search }));
  useEffect(() => {
    const on = () => setLoc({ path: current(), search: window.location.search });
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  const navigate = useCallback((to: string, opts: { replace?: boolean } = {}) => {
    const url = `${BASE}${to === '/' ? '/' : to}`;
    if (opts.replace) window.history.replaceState(null, '', url);
    else window.history.pushState(null, '', url);
    const [path, search = ''] = to.split('?');
    setLoc({ path: path || '/', search: search ? `?${search}` : '' });
    window.scrollTo(0, 0);
  }, []);
  return (
    <RouterContext.Provider
      value={{ path: loc.path, search: new URLSearchParams(loc.search), navigate }}
    >
      {children}
    </RouterContext.Provider>
  );
}

export const useRouter = () => useContext(RouterContext);

/** An in-app link: a real <a href> (open in new tab works), client-side navigation on plain clicks. */
export function Link({
  to,
  children,
  className,
  ...rest
}: { to: string; children: React.ReactNode; className?: string } & Omit<
  React.AnchorHTMLAttributes<HTMLAnchorElement>,
  'href'
>) {
  const { navigate } = useRouter();
  return (
    <a
      href={`${BASE}${to}`}
      className={className}
      {...rest}
      onClick={(e) => {
        if (
          e.defaultPrevented ||
          e.button !== 0 ||
          e.metaKey ||
          e.ctrlKey ||
          e.shiftKey ||
          e.altKey
        )
          return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
