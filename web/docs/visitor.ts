import type { ChatSettingsOverrides } from '../../machines/chatSettings.js';
import type { VisitorSession, VisitorSessions } from '../../transports/http/session.js';

/** A docs visitor's server-side session: their /assistant settings are chat setting overrides. */
export type DocsVisitorSession = VisitorSession<ChatSettingsOverrides>;
export type DocsVisitorSessions = VisitorSessions<ChatSettingsOverrides>;
