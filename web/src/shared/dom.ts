/** A tiny element builder: enough UI layer for two pages, and nothing to learn. */
export type Child = Node | string | number | null | undefined | false | Child[];
export type Attrs = Record<string, unknown>;

/** Properties set as DOM properties rather than attributes. */
const PROPERTIES = new Set(['value', 'checked', 'indeterminate']);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2).toLowerCase(), value as EventListener);
    } else if (PROPERTIES.has(key)) {
      (element as unknown as Record<string, unknown>)[key] = value;
    } else {
      element.setAttribute(key === 'className' ? 'class' : key, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The element with this id; throws when the page lacks it (a build mistake, not a user one). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}
