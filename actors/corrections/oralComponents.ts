import type { LanguageMeasures } from './richness.js';

/**
 * The parts of an oral grade, each 0–1: what scoring.ts computes from the measures and what
 * feedback.ts turns into strengths and advice.
 */
export interface OralComponents {
  task: number;
  questions: number;
  information: number;
  volume: number;
  followUps: number;
  range: number;
  complexity: number;
  sentence: number;
  language: LanguageMeasures;
}
