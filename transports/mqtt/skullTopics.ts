/**
 * The Skull's MQTT topics (docs/skull.md#topics), optionally under a fleet prefix:
 * `<prefix>/asr/text`, `<prefix>/ai/response`… With no prefix they are exactly the spec's.
 */
export interface SkullTopics {
  asrText: string;
  aiRequest: string;
  aiCancel: string;
  configIa: string;
  configPrompt: string;
  aiResponse: string;
  aiUsage: string;
  aiCapabilities: string;
  aiHealth: string;
}

export function skullTopics(prefix = ''): SkullTopics {
  const p = prefix.replace(/\/+$/, '');
  const t = (topic: string) => (p ? `${p}/${topic}` : topic);
  return {
    asrText: t('asr/text'),
    aiRequest: t('ai/request'),
    aiCancel: t('ai/cancel'),
    configIa: t('skull/config/ia'),
    configPrompt: t('skull/config/prompt_system'),
    aiResponse: t('ai/response'),
    aiUsage: t('ai/usage'),
    aiCapabilities: t('ai/capabilities'),
    aiHealth: t('ai/health'),
  };
}

/** Topics the service subscribes to. */
export function inputTopics(t: SkullTopics): string[] {
  return [t.asrText, t.aiRequest, t.aiCancel, t.configIa, t.configPrompt];
}
