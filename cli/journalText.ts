import type { Divergence } from '../core/journal/replay.js';
import type { Journal, JournalStep, JournalSummary } from '../core/journal/step.js';

/** How `palabre journal` and `palabre replay` print journals for a person (`--json` prints them whole). */

const LIMIT = 160;

function short(v: unknown, limit = LIMIT): string {
  const text = v === undefined ? '(nothing)' : typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function stateText(state: unknown): string {
  if (typeof state === 'string') return state;
  if (state && typeof state === 'object') {
    return Object.entries(state as Record<string, unknown>).map(([k, v]) => (v && typeof v === 'object' && Object.keys(v).length > 0 ? `${k}.{${stateText(v)}}` : typeof v === 'string' ? `${k}.${v}` : k)).join(', ');
  }
  return String(state);
}

export function summaryLine(s: JournalSummary, idWidth = s.id.length): string {
  return `${s.id.padEnd(idWidth)}  ${s.surface.padEnd(11)} ${s.machine.padEnd(10)} ${s.startedAt}  ${s.endedAt ? 'ended' : 'live '}  ${String(s.steps).padStart(5)} steps`;
}

function stepLines(step: JournalStep): string[] {
  const lines = [`#${step.seq}  +${Math.round(step.at)} ms  ${step.from}  ${step.event.type}${eventDetail(step)} → ${stateText(step.state)}${step.status === 'active' ? '' : ` (${step.status})`}`];
  for (const a of step.actions) lines.push(`     do     ${a.type}${a.params === undefined ? '' : ` ${short(a.params)}`}`);
  for (const i of step.invoked) lines.push(`     start  ${i.src}${i.id && i.id !== i.src ? ` (${i.id})` : ''}${i.input === undefined ? '' : ` input ${short(i.input)}`}`);
  return lines;
}

function eventDetail(step: JournalStep): string {
  const { type: _type, ...rest } = step.event;
  return Object.keys(rest).length === 0 ? '' : ` ${short(rest, 100)}`;
}

export function journalText(j: Journal): string {
  const head = `${j.id}: ${j.machine} conversation of the ${j.surface} surface (${j.systemId}), started ${j.startedAt}${j.endedAt ? `, ended ${j.endedAt}` : ', still live when last written'}, ${j.steps.length} steps`;
  return [head, ...j.steps.flatMap(stepLines)].join('\n');
}

/** Where two texts first differ, with some context on each side: a prompt edit reads at a glance. */
function around(a: string, b: string): [string, string] {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 40);
  const cut = (s: string): string => `${from > 0 ? '…' : ''}${JSON.stringify(s.slice(from, i + 80)).slice(1, -1)}${s.length > i + 80 ? '…' : ''}`;
  return [cut(a), cut(b)];
}

export function divergenceText(id: string, total: number, d: Divergence): string {
  const e = d.expectedStep;
  const lines = [`replay ${id}: diverged at step ${d.step} of ${total} (${e.from} ${e.event.type}, +${Math.round(e.at)} ms)`];
  const where = `${d.field}${d.path}`;
  if (!d.gotStep) lines.push(`  today's chart took no step: expected event ${e.event.type} to be processed (a timer it no longer sets, or it had stopped)`);
  else if (typeof d.expected === 'string' && typeof d.got === 'string' && (d.expected.length > 60 || d.got.length > 60)) {
    const [a, b] = around(d.expected, d.got);
    lines.push(`  ${where} differs`, `  expected: ${a}`, `  got:      ${b}`);
  } else lines.push(`  ${where} differs`, `  expected: ${short(d.expected, 400)}`, `  got:      ${short(d.got, 400)}`);
  lines.push('  recorded step:', ...stepLines(e).map((l) => `    ${l}`));
  if (d.gotStep) lines.push('  replayed step:', ...stepLines(d.gotStep).map((l) => `    ${l}`));
  return lines.join('\n');
}
