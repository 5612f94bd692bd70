/**
 * Server-side HTML building with escaping by default. `html\`<p>${text}</p>\`` escapes every
 * interpolated value unless it is already `SafeHtml` (the result of `html` or of `trusted()` for
 * HTML that went through sanitize-html). Pages never concatenate raw strings into markup, so a
 * question, a model answer or a document title cannot inject markup by accident.
 */

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** Marks HTML as safe: only for markup produced here or by sanitize-html. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}
