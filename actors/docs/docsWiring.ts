import { chatMachine } from '../../machines/chat.js';

/** The `chat` chart with the assistant's actors (retrieve, judge, generate, verify): the docs surface's one `.provide()`. */
export function wireChat(actors: NonNullable<Parameters<typeof chatMachine.provide>[0]['actors']>) {
  return chatMachine.provide({ actors });
}
