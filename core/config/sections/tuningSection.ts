import { z } from 'zod';
import { configSection } from '../section.js';
import { parseTuningOff, TUNINGS } from '../../tuning/switches.js';

/** Off switches of the runtime tuning (docs/runtime-tuning.md): every piece is on unless listed here. */
export const tuningSection = configSection({
  title: 'Runtime tuning',
  shape: {
    TUNING_OFF: z.string()
      .refine((v) => parseTuningOff(v).unknown.length === 0, { message: `expected none, all, or a comma list among ${TUNINGS.join(', ')}` })
      .default('none')
      .describe(`Runtime tuning to turn off (docs/runtime-tuning.md): \`none\`, \`all\`, or a comma list among ${TUNINGS.map((t) => `\`${t}\``).join(', ')}`),
  },
});
