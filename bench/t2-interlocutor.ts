/**
 * The offline T2 interlocutor on its labelled question set (test/t2/eval/questions/): each
 * dialogue is played through the offline provider's T2 responder (history included), and each
 * reply is compared with the label of the turn (the fact asked, `none`, `greeting`, `closing`).
 *
 *   npx tsx bench/t2-interlocutor.ts tune        # the tuning part (looked at while building the matcher)
 *   npx tsx bench/t2-interlocutor.ts heldout     # the held-out part, run once, at the end
 *   npx tsx bench/t2-interlocutor.ts all         # both; --verbose lists every miss
 *
 * It also prints the first keyword matcher's figures (bench/support/keywordResponder.ts), and how
 * the rule monitor judges both: a reply is "flagged" when the monitor counts it off topic or
 * repeated; a wrong reply that gives a fact should be flagged, a right one should not.
 */
import { backgroundOf } from '../actors/t2/factSheetResponder.js';
import { RuleMonitor } from '../actors/t2/ruleMonitor.js';
import { labelOfReply, loadDialogues, play, QUESTION_PARTS, seededSubject, type Dialogue, type Played, type QuestionPart } from '../test/t2/eval/questions/set.js';
import { keywordAnswer } from './support/keywordResponder.js';

const arg = process.argv[2] ?? 'all';
const verbose = process.argv.includes('--verbose');
const parts: QuestionPart[] = arg === 'all' ? [...QUESTION_PARTS] : QUESTION_PARTS.filter((p) => p === arg);
if (parts.length === 0) throw new Error(`usage: t2-interlocutor.ts ${QUESTION_PARTS.join('|')}|all [--verbose]`);

const category = (label: string): string => (['none', 'greeting', 'closing'].includes(label) ? label : 'fact');

/** The first matcher on the same dialogues (no history: it had none). */
function playBaseline(d: Dialogue): Played[] {
  const s = seededSubject(d.subject);
  return d.turns.map((t) => {
    const reply = keywordAnswer(s.factSheet, t.q);
    return { subject: d.subject, q: t.q, expect: t.expect, got: labelOfReply(reply, s.factSheet).replace(/^\? /, ''), reply };
  });
}

/** Replays a played dialogue through the rule monitor: which replies it flags off topic or repeated. */
function monitorFlags(d: Dialogue, played: Played[]): boolean[] {
  const s = seededSubject(d.subject);
  const m = new RuleMonitor(() => ({ factSheet: s.factSheet, background: backgroundOf(s) }));
  return played.map((p) => {
    m.candidate(p.q);
    return m.reply(p.reply, true).some((r) => r === 'answers_question' || r === 'no_repeat');
  });
}

function monitorLine(rows: Array<{ p: Played; flagged: boolean; factGiven: boolean }>): string {
  const wrongFacts = rows.filter((r) => r.factGiven && r.p.got !== r.p.expect);
  const rightFacts = rows.filter((r) => r.factGiven && r.p.got === r.p.expect);
  return `rule monitor: flags ${wrongFacts.filter((r) => r.flagged).length}/${wrongFacts.length} wrong replies giving a fact, ${rightFacts.filter((r) => r.flagged).length}/${rightFacts.length} right ones; compliant replies reported ${rows.filter((r) => !r.flagged).length}/${rows.length} on the topic rules`;
}

for (const part of parts) {
  const dialogues = loadDialogues(part);
  const rows: Array<{ p: Played; flagged: boolean; factGiven: boolean }> = [];
  const baseRows: typeof rows = [];
  for (const d of dialogues) {
    const facts = seededSubject(d.subject).factSheet;
    const isFact = (p: Played) => facts.some((f) => p.reply.includes(f.answer));
    const mine = play(d);
    monitorFlags(d, mine).forEach((flagged, i) => rows.push({ p: mine[i]!, flagged, factGiven: isFact(mine[i]!) }));
    const base = playBaseline(d);
    monitorFlags(d, base).forEach((flagged, i) => baseRows.push({ p: base[i]!, flagged, factGiven: isFact(base[i]!) }));
  }
  const played = rows.map((r) => r.p);
  const right = played.filter((p) => p.got === p.expect).length;
  console.log(`\n${part}: ${right}/${played.length} replies match the label (${((100 * right) / played.length).toFixed(1)} %)`);
  console.log('| label | turns | right |');
  console.log('| --- | --- | --- |');
  for (const c of ['fact', 'none', 'greeting', 'closing']) {
    const of = played.filter((p) => category(p.expect) === c);
    console.log(`| ${c} | ${of.length} | ${of.filter((p) => p.got === p.expect).length} |`);
  }
  const misses = played.filter((p) => p.got !== p.expect);
  if (misses.length) console.log(`misses: ${misses.length}`);
  for (const m of misses) console.log(`  [${m.subject}] « ${m.q} » expected ${m.expect}, got ${m.got}${verbose ? ` — ${m.reply}` : ''}`);
  console.log(monitorLine(rows));
  const baseRight = baseRows.filter((r) => r.p.got === r.p.expect).length;
  console.log(`first keyword matcher (baseline): ${baseRight}/${baseRows.length} (${((100 * baseRight) / baseRows.length).toFixed(1)} %); ${monitorLine(baseRows)}`);
}
