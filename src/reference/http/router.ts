/**
 * A small method-and-path router: `:name` matches one segment, `*name` the rest of the path.
 * Distinguishes "no such path" (404) from "path exists, method does not" (405 with Allow).
 */
export type RouteMatch<H> =
  | { kind: 'found'; handler: H; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

interface Route<H> {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: H;
}

export class Router<H> {
  private readonly routes: Route<H>[] = [];

  add(method: string | string[], path: string, handler: H): this {
    const names: string[] = [];
    const source = path
      .split('/')
      .map((seg) => {
        if (seg.startsWith(':')) {
          names.push(seg.slice(1));
          return '([^/]+)';
        }
        if (seg.startsWith('*')) {
          names.push(seg.slice(1));
          return '(.*)';
        }
        return seg.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    for (const m of Array.isArray(method) ? method : [method]) {
      this.routes.push({ method: m, pattern: new RegExp(`^${source}$`), names, handler });
    }
    return this;
  }

  match(method: string, path: string): RouteMatch<H> {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = m[i + 1] ?? '';
      });
      return { kind: 'found', handler: route.handler, params };
    }
    return allowed.length ? { kind: 'method-not-allowed', allowed: [...new Set(allowed)] } : { kind: 'not-found' };
  }
}

/** What a route handler of the mesh agent or the scheduler receives. */
export interface RouteContext {
  req: import('node:http').IncomingMessage;
  res: import('node:http').ServerResponse;
  url: URL;
  params: Record<string, string>;
}

export type RouteHandler = (ctx: RouteContext) => void | Promise<void>;
