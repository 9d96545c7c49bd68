import { family } from '../family.js';
import { getPreferences, updatePreferences } from './preferences.js';

/** notification.*: preferences (preferences.ts); delivery runs after commit in the server's worker processes (delivery.ts). */
export const notificationHandlers = family('notification', { getPreferences, updatePreferences });
