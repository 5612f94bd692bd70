import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { SEED_SUBJECTS } from '../../../../actors/t2/seedSubjects.js';
import type { TranscriptTurn, WrittenTask } from '../../../../prompts/corrections/tasks.js';
import type { OralSubject } from '../../../../prompts/corrections/tasks.js';

/**
 * Loads the labelled oral and written sets of this folder (README.md gives the format). Parse only:
 * nothing here grades. `@theme` interlocutor lines become the seeded subject's fact answer, so the
 * dialogue reads as the T2 interlocutor would answer; `atMs` follows a speaking rate of 2.5 words a
 * second with a 1.5 s pause between turns.
 */

const HERE = dirname(fileURLToPath(import.meta.url));

export interface OralItem {
  id: string;
  sujetId: string;
  label: number;
  niveau: string;
  consigne: string;
  sujet: OralSubject;
  transcript: TranscriptTurn[];
}

export interface WrittenItem {
  id: string;
  tache: WrittenTask;
  label: number;
  kind: string;
  part: 'tune' | 'heldout';
  consigne: string;
  texte: string;
}

const blocks = (text: string): string[][] =>
  text.split(/^=== /m).slice(1).map((b) => b.replace(/\s+$/, '').split('\n'));

function parseOral(text: string, file = 'inline'): OralItem[] {
  return blocks(text).map((lines) => {
    const [id, sujetId, label, niveau] = lines[0]!.split('|').map((s) => s.trim());
    const subject = SEED_SUBJECTS.find((s) => s.id === sujetId);
    if (!id || !sujetId || !subject || !label || !niveau) throw new Error(`${file}: bad header « ${lines[0]} »`);
    const transcript: TranscriptTurn[] = [];
    let at = 0;
    for (const line of lines.slice(1)) {
      if (!line.trim()) continue;
      const m = /^([CI]): (.+)$/.exec(line);
      if (!m) throw new Error(`${file} ${id}: bad line « ${line} »`);
      let said = m[2]!.trim();
      if (said.startsWith('@')) {
        const fact = subject.factSheet.find((f) => f.theme === said.slice(1));
        if (!fact) throw new Error(`${file} ${id}: no fact « ${said} » in ${sujetId}`);
        said = fact.answer;
      }
      transcript.push({ speaker: m[1] === 'C' ? 'candidate' : 'interlocutor', text: said, atMs: Math.round(at) });
      at += (said.split(/\s+/).length / 2.5) * 1000 + 1500;
    }
    return {
      id, sujetId, label: Number(label), niveau, consigne: subject.consigne, transcript,
      sujet: { titre: subject.titre, contexte: subject.contexte, faits: subject.factSheet.map((f) => ({ theme: f.theme, keywords: f.keywords, answer: f.answer })) },
    };
  });
}

export function loadOral(part: 'tune' | 'heldout' | 'fresh' | 'final'): OralItem[] {
  return parseOral(readFileSync(join(HERE, `${part}.txt`), 'utf8'), `${part}.txt`);
}

export function loadWritten(): WrittenItem[] {
  return blocks(readFileSync(join(HERE, 'written.txt'), 'utf8')).map((lines) => {
    const [id, tache, label, kind, part] = lines[0]!.split('|').map((s) => s.trim());
    const consigne = /^consigne: (.+)$/.exec(lines[1] ?? '')?.[1];
    if (!id || !tache || !label || !kind || (part !== 'tune' && part !== 'heldout') || !consigne) throw new Error(`written.txt: bad item « ${lines[0]} »`);
    return { id, tache: tache as WrittenTask, label: Number(label), kind, part, consigne, texte: lines.slice(2).join('\n').trim() };
  });
}
