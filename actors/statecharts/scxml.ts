import type { Chart, ChartNode, ChartTransition } from './chart.js';

/**
 * W3C SCXML (https://www.w3.org/TR/scxml/) of a chart. Structure only: states, parallel, final,
 * initial, transitions (event, target, cond) and invokes. XState specifics that SCXML has no
 * attribute for (the delay of an `after`, action names, a state's description) are kept in the
 * palabre namespace, which SCXML allows on any element.
 */

export const SCXML_NS = 'http://www.w3.org/2005/07/scxml';
export const PALABRE_NS = 'urn:palabre:xstate';

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function transitionXml(t: ChartTransition, indent: string): string {
  const parts = [`event="${attr(t.event || '')}"`];
  if (t.kind === 'always') parts.length = 0; // eventless transition: no event attribute
  if (t.targets.length > 0) parts.push(`target="${attr(t.targets.join(' '))}"`);
  if (t.guard) parts.push(`cond="${attr(t.guard)}"`);
  if (t.targets.length === 0) parts.push(`type="internal"`);
  if (t.delay !== undefined) parts.push(`px:delay="${attr(String(t.delay))}"`);
  if (t.actions.length > 0) parts.push(`px:actions="${attr(t.actions.join(' '))}"`);
  return `${indent}<transition ${parts.join(' ')}/>`;
}

function nodeXml(node: ChartNode, byTarget: Map<string, ChartTransition[]>, indent: string): string[] {
  const tag = node.type === 'parallel' ? 'parallel' : node.type === 'final' ? 'final' : 'state';
  const attrs = [`id="${attr(node.id)}"`];
  if (tag === 'state' && node.initial) attrs.push(`initial="${attr(node.initial)}"`);
  if (node.description) attrs.push(`px:description="${attr(node.description)}"`);
  const inner: string[] = [];
  for (const inv of node.invokes) inner.push(`${indent}  <invoke id="${attr(inv.id)}" type="xstate" src="${attr(inv.src)}"/>`);
  for (const t of byTarget.get(node.id) ?? []) inner.push(transitionXml(t, `${indent}  `));
  for (const child of node.children) inner.push(...nodeXml(child, byTarget, `${indent}  `));
  if (inner.length === 0) return [`${indent}<${tag} ${attrs.join(' ')}/>`];
  return [`${indent}<${tag} ${attrs.join(' ')}>`, ...inner, `${indent}</${tag}>`];
}

export function toScxml(chart: Chart): string {
  const bySource = new Map<string, ChartTransition[]>();
  for (const t of chart.transitions) {
    const list = bySource.get(t.source) ?? [];
    list.push(t);
    bySource.set(t.source, list);
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<scxml xmlns="${SCXML_NS}" xmlns:px="${PALABRE_NS}" version="1.0" name="${attr(chart.name)}" initial="${attr(chart.root.id)}">`,
    ...nodeXml(chart.root, bySource, '  '),
    '</scxml>',
    '',
  ].join('\n');
}
