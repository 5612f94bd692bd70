import { createRequire } from 'node:module';
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { Chart, ChartNode } from './chart.js';

/**
 * Lays a chart out with ELK (layered, hierarchical) and draws it as standalone SVG: nested and
 * parallel states, final states, initial markers, guards and delays on the edges, invoked actors
 * under the state's name. Entirely offline. Each state is a `<g data-state-id="…">` so the
 * inspector highlights the current state by toggling a class; each edge and its label carry the
 * transition's event, source and target (`data-event`, `data-source`, `data-target`), so it
 * highlights the transition last taken the same way. A state's `description` is its group's
 * `<title>`: the browser's tooltip on hover and the state's accessible name, read by the inspector.
 */

// elkjs is CommonJS whose module.exports is the constructor; NodeNext typing sees a namespace.
const ELK = createRequire(import.meta.url)('elkjs/lib/elk.bundled.js') as new () => { layout(graph: ElkNode): Promise<ElkNode> };

const FONT = 12;
const CHAR_W = 7.2; // average advance of the sans-serif at 12px; ELK needs sizes up front
const HEADER = 22;
const LINE = 15;

function textWidth(text: string): number {
  return Math.ceil(text.length * CHAR_W) + 16;
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function invokeLines(node: ChartNode): string[] {
  return node.invokes.map((i) => `invoke ${i.src}`);
}

function toElkNode(node: ChartNode): ElkNode {
  const extra = invokeLines(node);
  const width = Math.max(textWidth(node.key), ...extra.map(textWidth), 60);
  if (node.children.length === 0) {
    return { id: node.id, width, height: HEADER + 8 + extra.length * LINE };
  }
  return {
    id: node.id,
    layoutOptions: {
      'elk.padding': `[top=${HEADER + 10 + extra.length * LINE},left=14,bottom=14,right=14]`,
      'elk.direction': node.type === 'parallel' ? 'DOWN' : 'RIGHT',
    },
    children: node.children.map(toElkNode),
  };
}

export interface SvgOptions {
  /** Title shown as the SVG's accessible name. */
  title?: string;
  /**
   * Embed the stylesheet (default). Pages with a strict CSP inline the SVG without it and style
   * the same classes from their own CSS (`web/static/inspect.css`).
   */
  embedStyle?: boolean;
}

export async function chartToSvg(chart: Chart, opts: SvgOptions = {}): Promise<string> {
  const elk = new ELK();
  const edges: ElkExtendedEdge[] = chart.transitions.map((t, i) => {
    const target = t.targets[0] ?? t.source;
    return {
      id: `e${i}`,
      sources: [t.source],
      targets: [target],
      labels: [{ id: `l${i}`, text: t.label, width: textWidth(t.label), height: LINE }],
    };
  });
  // Extra targets of multi-target transitions (parallel entry) get their own edges.
  chart.transitions.forEach((t, i) => {
    t.targets.slice(1).forEach((target, j) => edges.push({ id: `e${i}_${j + 1}`, sources: [t.source], targets: [target] }));
  });
  const graph = await elk.layout({
    id: '__graph',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.json.edgeCoords': 'ROOT',
      'elk.json.shapeCoords': 'ROOT',
      'elk.layered.spacing.nodeNodeBetweenLayers': '48',
      'elk.spacing.nodeNode': '28',
      'elk.spacing.edgeLabel': '4',
      'elk.edgeLabels.inline': 'false',
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
    children: [toElkNode(chart.root)],
    edges,
  });

  const byId = new Map<string, ChartNode>();
  const index = (n: ChartNode): void => {
    byId.set(n.id, n);
    n.children.forEach(index);
  };
  index(chart.root);

  const parts: string[] = [];
  const drawNode = (en: ElkNode, parentType: string | undefined): void => {
    const node = byId.get(en.id);
    if (!node) return;
    const x = en.x ?? 0;
    const y = en.y ?? 0;
    const w = en.width ?? 0;
    const h = en.height ?? 0;
    const cls = ['state', `state-${node.type}`, parentType === 'parallel' ? 'region' : ''].filter(Boolean).join(' ');
    parts.push(`<g class="${cls}" data-state-id="${esc(node.id)}">`);
    if (node.description) parts.push(`<title>${esc(`${node.key}: ${node.description}`)}</title>`);
    parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="8"/>`);
    if (node.type === 'final') parts.push(`<rect class="final-inner" x="${x + 3}" y="${y + 3}" width="${w - 6}" height="${h - 6}" rx="6"/>`);
    parts.push(`<text class="state-name" x="${x + 8}" y="${y + 16}">${esc(node.key)}</text>`);
    invokeLines(node).forEach((line, i) => {
      parts.push(`<text class="state-invoke" x="${x + 8}" y="${y + 16 + LINE * (i + 1)}">${esc(line)}</text>`);
    });
    parts.push('</g>');
    for (const child of en.children ?? []) drawNode(child, node.type);
    // The initial child gets a dot and an arrow from it.
    if (node.initial && node.type !== 'parallel') {
      const first = (en.children ?? []).find((c) => c.id === node.initial);
      if (first) {
        const cx = (first.x ?? 0) - 14;
        const cy = (first.y ?? 0) + 12;
        parts.push(`<circle class="initial" cx="${cx}" cy="${cy}" r="4"/><path class="edge" d="M${cx + 4},${cy} L${first.x ?? 0},${cy}" marker-end="url(#arrow)"/>`);
      }
    }
  };
  for (const child of graph.children ?? []) drawNode(child, undefined);

  for (const edge of graph.edges ?? []) {
    // `e<i>` or `e<i>_<j>`: the transition it draws, and for an extra target, which one.
    const [, i, j] = /^e(\d+)(?:_(\d+))?$/.exec(edge.id) ?? [];
    const t = i === undefined ? undefined : chart.transitions[Number(i)];
    const target = t ? (t.targets[j === undefined ? 0 : Number(j)] ?? t.source) : undefined;
    const attrs = t ? ` data-event="${esc(t.event)}" data-source="${esc(t.source)}" data-target="${esc(target ?? '')}"` : '';
    for (const s of edge.sections ?? []) {
      const pts = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint];
      parts.push(`<path class="edge" data-edge="${esc(edge.id)}"${attrs} d="M${pts.map((p) => `${p.x},${p.y}`).join(' L')}" marker-end="url(#arrow)"/>`);
    }
    for (const l of edge.labels ?? []) {
      parts.push(`<text class="edge-label" data-edge="${esc(edge.id)}"${attrs} x="${(l.x ?? 0) + 4}" y="${(l.y ?? 0) + FONT}">${esc(l.text ?? '')}</text>`);
    }
  }

  const width = Math.ceil(graph.width ?? 100);
  const height = Math.ceil(graph.height ?? 100);
  const title = esc(opts.title ?? `Statechart ${chart.name}`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="title-${esc(chart.name)}" class="statechart">`,
    `<title id="title-${esc(chart.name)}">${title}</title>`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>',
    opts.embedStyle === false ? '' : `<style>${SVG_STYLE}</style>`,
    `<rect class="background" width="${width}" height="${height}" fill="#fff"/>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

/** The chart's stylesheet; the inspector page serves the same rules from its CSS file. */
const SVG_STYLE = [
  '.statechart text{font:12px system-ui,-apple-system,"DejaVu Sans",sans-serif;fill:#1a1a1a}',
  '.state rect{fill:#f7f9fc;stroke:#46566b;stroke-width:1.2}',
  '.state-compound>rect,.state-parallel>rect{fill:#eef2f7}',
  '.region>rect{stroke-dasharray:5 3;fill:#fbfcfe}',
  '.state-final rect{fill:#fff}',
  '.state-name{font-weight:600}',
  '.state-invoke{fill:#5a3d8a!important;font-style:italic}',
  '.state.active>rect{stroke:#b35c00;stroke-width:2.5}',
  '.state-atomic.active>rect,.state-final.active>rect{fill:#fff4c2}',
  '.edge{fill:none;stroke:#333;stroke-width:1.1}',
  '.edge-label{fill:#0b4f8a!important}',
  '.edge.last{stroke:#b35c00;stroke-width:3}',
  '.edge-label.last{fill:#8a3d00!important;font-weight:700}',
  '.initial{fill:#333}',
].join('');
