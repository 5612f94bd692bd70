/** The docs assistant's contract, which lives with the chat chart (machines/chatContract.ts). */
export type * from '../../machines/chatContract.js';
