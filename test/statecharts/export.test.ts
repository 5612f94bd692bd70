import { describe, expect, it } from 'vitest';
import { DOMParser } from '@xmldom/xmldom';
import { setup, fromPromise } from 'xstate';
import { chartOf, allNodes, type Chart } from '../../actors/statecharts/chart.js';
import { machineFromChart } from '../../actors/statecharts/fromChart.js';
import { toScxml, SCXML_NS, PALABRE_NS } from '../../actors/statecharts/scxml.js';
import { toMermaid } from '../../actors/statecharts/mermaid.js';
import { chartToSvg } from '../../actors/statecharts/svg.js';
import { MACHINES, loadMachine } from '../support/machines.js';
import { run } from '../../cli/commands/machinesCommand.js';

/** A machine with every construct the exporters must carry: nesting, parallel, final, guards, delays, invokes, always. */
const sample = setup({
  actors: { fetcher: fromPromise(async () => 1) },
  guards: { ready: () => true },
  delays: { patience: 300 },
  actions: { note: () => undefined },
}).createMachine({
  id: 'sample',
  description: 'A sample: every construct; colons & <angles> survive.',
  initial: 'idle',
  states: {
    idle: { description: 'Waits for go; a patience delay.', on: { go: { target: 'working', guard: 'ready', actions: 'note' } }, after: { patience: 'done', 1000: 'idle' } },
    working: {
      type: 'parallel',
      description: 'Two regions: left steps, right waits.',
      invoke: { src: 'fetcher', onDone: 'done', onError: 'idle' },
      states: {
        left: { description: 'Steps a, b, c.', initial: 'a', states: { a: { on: { step: 'b' } }, b: { always: 'c' }, c: { type: 'final' } } },
        right: { initial: 'x', states: { x: {} } },
      },
    },
    done: { type: 'final' },
  },
});

async function allCharts(): Promise<Chart[]> {
  const charts = [chartOf('sample', sample)];
  for (const name of Object.keys(MACHINES)) charts.push(chartOf(name, (await loadMachine(name))!));
  return charts;
}

describe('statechart export', () => {
  it('JSON export round-trips: the machine rebuilt from it has the same structure', async () => {
    for (const chart of await allCharts()) {
      const json = JSON.parse(JSON.stringify(chart)) as Chart;
      const rebuilt = chartOf(chart.name, machineFromChart(json));
      expect(rebuilt, chart.name).toEqual(chart);
    }
  });

  it('the chart carries nested and parallel states, guards, delays, invokes and always', () => {
    const chart = chartOf('sample', sample);
    const types = Object.fromEntries(allNodes(chart).map((n) => [n.id, n.type]));
    expect(types['sample.working']).toBe('parallel');
    expect(types['sample.working.left.c']).toBe('final');
    const labels = chart.transitions.map((t) => t.label);
    expect(labels).toEqual(expect.arrayContaining(['go [ready]', 'after patience', 'after 1000ms', 'done: fetcher', 'error: fetcher', 'always', 'step']));
    expect(allNodes(chart).find((n) => n.id === 'sample.working')?.invokes).toEqual([{ id: expect.any(String), src: 'fetcher' }]);
  });

  it('SCXML follows the W3C structure: elements, unique ids, resolvable targets and initials', async () => {
    const allowed: Record<string, string[]> = {
      scxml: ['state', 'parallel', 'final'],
      state: ['state', 'parallel', 'final', 'transition', 'invoke'],
      parallel: ['state', 'parallel', 'transition', 'invoke'],
      final: [],
    };
    for (const chart of await allCharts()) {
      const doc = new DOMParser({ errorHandler: { warning: (m: string) => { throw new Error(`warning: ${m}`); }, error: (m: string) => { throw new Error(`error: ${m}`); }, fatalError: (m: string) => { throw new Error(`fatal: ${m}`); } } }).parseFromString(toScxml(chart), 'text/xml');
      const root = doc.documentElement!;
      expect(root.localName).toBe('scxml');
      expect(root.namespaceURI).toBe(SCXML_NS);
      expect(root.getAttribute('version')).toBe('1.0');
      const ids = new Set<string>();
      const described = new Map<string, string>();
      const transitions: Array<{ targets: string[] }> = [];
      const initials: Array<{ parent: string; initial: string; children: string[] }> = [];
      const walk = (el: Element): void => {
        const kids = Array.from(el.childNodes).filter((n): n is Element => n.nodeType === 1);
        for (const kid of kids) {
          expect(allowed[el.localName] ?? [], `${kid.localName} inside ${el.localName}`).toContain(kid.localName);
          if (['state', 'parallel', 'final'].includes(kid.localName)) {
            const id = kid.getAttribute('id')!;
            expect(ids.has(id), `duplicate id ${id}`).toBe(false);
            ids.add(id);
            const description = kid.getAttributeNS(PALABRE_NS, 'description');
            if (description) described.set(id, description);
          }
          if (kid.localName === 'transition') transitions.push({ targets: (kid.getAttribute('target') ?? '').split(/\s+/).filter(Boolean) });
          if (kid.localName === 'state' && kid.getAttribute('initial')) {
            initials.push({
              parent: kid.getAttribute('id')!,
              initial: kid.getAttribute('initial')!,
              children: Array.from(kid.childNodes).filter((n): n is Element => n.nodeType === 1).map((c) => c.getAttribute('id') ?? ''),
            });
          }
          walk(kid);
        }
      };
      walk(root);
      expect(ids.size, chart.name).toBe(allNodes(chart).length);
      expect(transitions.length, chart.name).toBe(chart.transitions.length);
      for (const t of transitions) for (const target of t.targets) expect(ids.has(target), `target ${target}`).toBe(true);
      for (const i of initials) expect(i.children, `initial of ${i.parent}`).toContain(i.initial);
      expect(ids.has(root.getAttribute('initial')!)).toBe(true);
      // Each state's description, and only those, as px:description.
      expect(described, chart.name).toEqual(new Map(allNodes(chart).flatMap((n) => (n.description ? [[n.id, n.description] as const] : []))));
    }
  });

  it('Mermaid text declares every state and every transition', async () => {
    for (const chart of await allCharts()) {
      const text = toMermaid(chart);
      expect(text.startsWith('stateDiagram-v2\n')).toBe(true);
      const arrows = text.split('\n').filter((l) => / --> /.test(l) && !l.includes('[*]'));
      expect(arrows.length, chart.name).toBe(chart.transitions.reduce((n, t) => n + Math.max(1, t.targets.length), 0));
      for (const node of allNodes(chart)) expect(text).toContain(`"${node.key}"`);
    }
  });

  it('Mermaid carries each description: a state description, or a note on a composite state', () => {
    const text = toMermaid(chartOf('sample', sample));
    expect(text).toContain('  s_sample_idle : Waits for go, a patience delay.\n');
    expect(text).toContain('  note left of s_sample_working : Two regions, left steps, right waits.\n');
    expect(text).toContain('note left of s_sample : A sample, every construct, colons & <angles> survive.\n');
    // An undescribed state gets neither.
    expect(text).not.toMatch(/s_sample_working_right_x : |note left of s_sample_working_right\b/);
  });

  it('SVG draws every state as an addressable group', async () => {
    const chart = chartOf('sample', sample);
    const svg = await chartToSvg(chart);
    for (const node of allNodes(chart)) expect(svg).toContain(`data-state-id="${node.id}"`);
    expect(svg).toContain('invoke fetcher');
    expect(svg).toContain('go [ready]');
    // Every edge and its label name the transition they draw, for the inspector's « last transition ».
    for (const t of chart.transitions) {
      for (const target of t.targets.length ? t.targets : [t.source]) {
        const attrs = `data-event="${t.event}" data-source="${t.source}" data-target="${target}"`;
        expect(svg, `${t.source} —${t.event}→ ${target}`).toMatch(new RegExp(`<path class="edge" data-edge="[^"]+" ${attrs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      }
    }
    expect(svg).toMatch(/<text class="edge-label" data-edge="e0" data-event=/);
    // A described state's group opens with its <title> (tooltip and accessible name); others have none.
    expect(svg).toContain('<g class="state state-atomic" data-state-id="sample.idle">\n<title>idle: Waits for go; a patience delay.</title>');
    expect(svg).toContain('<title>sample: A sample: every construct; colons &amp; &lt;angles&gt; survive.</title>');
    expect(svg).toMatch(/data-state-id="sample\.working\.right\.x">\n<rect/);
  });

  it('`palabre machines` prints every machine in each format and rejects bad arguments', async () => {
    const capture = () => {
      let out = '';
      let err = '';
      return {
        io: { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: (s: string) => ((err += s), true) }, env: {} } as unknown as Parameters<typeof run>[1],
        out: () => out,
        err: () => err,
      };
    };
    const json = capture();
    expect(await run(['--format', 'json'], json.io)).toBe(0);
    const parsed = JSON.parse(json.out()) as Chart[];
    expect(parsed.map((c) => c.name).sort()).toEqual(Object.keys(MACHINES).sort());
    // Each state's description is in the JSON, as the machine declares it.
    const t2 = parsed.find((c) => c.name === 't2live')!;
    const t2machine = (await loadMachine('t2live'))!;
    for (const node of allNodes(t2)) {
      expect(node.description, node.id).toBe((t2machine.getStateNodeById(node.id) as { description?: string }).description);
      expect(node.description, node.id).toMatch(/\S/);
    }
    const scxml = capture();
    expect(await run(['--format', 'scxml', 'llmCall'], scxml.io)).toBe(0);
    expect(scxml.out()).toContain('<scxml');
    const bad = capture();
    expect(await run(['--format', 'png'], bad.io)).toBe(2);
    expect(bad.err()).toMatch(/--format must be one of/);
    const unknown = capture();
    expect(await run(['nope'], unknown.io)).toBe(2);
    expect(unknown.err()).toMatch(/unknown machine/);
  });
});

describe('docs images of the statecharts', () => {
  it('docs/img/machines holds an up-to-date SVG of every machine (npm run docs:charts)', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    for (const name of Object.keys(MACHINES)) {
      const file = new URL(`../../docs/img/machines/${name}.svg`, import.meta.url);
      expect(existsSync(file), `${name}.svg missing: run npm run docs:charts`).toBe(true);
      const expected = `${await chartToSvg(chartOf(name, (await loadMachine(name))!))}\n`;
      expect(readFileSync(file, 'utf8') === expected, `${name}.svg is stale: run npm run docs:charts`).toBe(true);
    }
  });

  it('docs/reading-statecharts.md shows every machine\'s drawing', async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(new URL('../../docs/reading-statecharts.md', import.meta.url), 'utf8');
    const missing = Object.keys(MACHINES).filter((name) => !page.includes(`](img/machines/${name}.svg)`));
    expect(missing, 'machines without a row in the table of docs/reading-statecharts.md § The charts').toEqual([]);
  });
});
