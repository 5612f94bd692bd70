import type { Chart, ChartNode, ChartTransition } from './chart.js';

/**
 * Mermaid `stateDiagram-v2` of a chart. The machine's root is drawn as a composite state so that
 * root-level transitions have somewhere to live; parallel regions are separated by `--`. A
 * state's description is Mermaid's own state description (`id : text`), drawn under its name;
 * Mermaid refuses one on a composite state, which gets it as a note on its left instead.
 */

/** Mermaid ids must be plain identifiers: dots and dashes become underscores. */
function mermaidId(id: string): string {
  return `s_${id.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** Labels are free text up to the end of the line; `;`, `#` and `:` confuse the parser. */
function label(text: string): string {
  return text.replace(/[;#:]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** A description is prose: its colons and semicolons become commas rather than vanish. */
function description(text: string): string {
  return label(text.replace(/\s*[:;]\s*/g, ', '));
}

function transitionLines(t: ChartTransition): string[] {
  const targets = t.targets.length > 0 ? t.targets : [t.source];
  return targets.map((target) => `${mermaidId(t.source)} --> ${mermaidId(target)} : ${label(t.label)}`);
}

function nodeLines(node: ChartNode, indent: string): string[] {
  const id = mermaidId(node.id);
  const lines: string[] = [];
  const text = node.description ? description(node.description) : undefined;
  if (node.children.length === 0) {
    lines.push(`${indent}state "${label(node.key)}" as ${id}`);
    if (text) lines.push(`${indent}${id} : ${text}`);
    if (node.type === 'final') lines.push(`${indent}${id} --> [*]`);
  } else {
    lines.push(`${indent}state "${label(node.key)}" as ${id}`);
    if (text) lines.push(`${indent}note left of ${id} : ${text}`);
    lines.push(`${indent}state ${id} {`);
    if (node.type === 'parallel') {
      node.children.forEach((child, i) => {
        if (i > 0) lines.push(`${indent}  --`);
        lines.push(...nodeLines(child, `${indent}  `));
      });
    } else {
      if (node.initial) lines.push(`${indent}  [*] --> ${mermaidId(node.initial)}`);
      for (const child of node.children) lines.push(...nodeLines(child, `${indent}  `));
    }
    lines.push(`${indent}}`);
  }
  if (node.invokes.length > 0) {
    lines.push(`${indent}note right of ${id} : invokes ${label(node.invokes.map((i) => i.src).join(', '))}`);
  }
  return lines;
}

export function toMermaid(chart: Chart): string {
  const lines = ['stateDiagram-v2', `  [*] --> ${mermaidId(chart.root.id)}`, ...nodeLines(chart.root, '  ')];
  for (const t of chart.transitions) lines.push(...transitionLines(t).map((l) => `  ${l}`));
  return `${lines.join('\n')}\n`;
}
