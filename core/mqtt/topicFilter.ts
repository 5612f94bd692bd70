/**
 * MQTT topic filters (MQTT 3.1.1 §4.7, the same in 5): `+` stands for one level, `#` for every
 * level below (and the level itself: `a/#` matches `a`), and a filter that starts with a wildcard
 * matches no topic that starts with `$` (`$SYS/…`, the broker's own).
 */

/** Why a filter is not valid, or undefined when it is. */
function filterProblem(filter: string): string | undefined {
  if (filter.length === 0) return 'it is empty';
  if (filter.includes('\u0000')) return 'it holds a NUL character';
  const levels = filter.split('/');
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) return '`#` must be a whole level, the last one';
    if (level.includes('+') && level !== '+') return '`+` must be a whole level';
  }
  return undefined;
}

/** A valid filter, split once: matching a topic against it splits only the topic. */
export class TopicFilter {
  readonly levels: readonly string[];
  readonly exact: boolean;

  constructor(readonly filter: string) {
    const problem = filterProblem(filter);
    if (problem) throw new Error(`the MQTT topic filter "${filter}" is not valid: ${problem}`);
    this.levels = filter.split('/');
    this.exact = !this.levels.some((l) => l === '+' || l === '#');
  }

  /** Whether a message on `topic` falls under this filter; `levels` is `topic.split('/')`. */
  matches(topic: string, levels: readonly string[]): boolean {
    if (this.exact) return topic === this.filter;
    if (topic.startsWith('$') && (this.levels[0] === '+' || this.levels[0] === '#')) return false;
    for (let i = 0; i < this.levels.length; i++) {
      const f = this.levels[i]!;
      if (f === '#') return true;
      if (i >= levels.length || (f !== '+' && f !== levels[i])) return false;
    }
    return levels.length === this.levels.length;
  }
}

/** Whether a message on `topic` falls under `filter` (a valid filter; an invalid one throws). */
export function topicMatches(filter: string, topic: string): boolean {
  return new TopicFilter(filter).matches(topic, topic.split('/'));
}
