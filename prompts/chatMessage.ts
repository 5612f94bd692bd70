/** One message of a conversation with a model, as a prompt is written: the LLM port carries it as is. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}
