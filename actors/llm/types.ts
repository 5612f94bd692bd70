/** The provider port as the llmCall machine defines it; providers implement `LlmProvider`. */
export * from '../../machines/llmPort.js';
