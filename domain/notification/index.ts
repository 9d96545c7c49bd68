import { family, type Family } from '../core/family.js';
import { getPreferences, updatePreferences } from './preferences.js';
import { startDelivery } from './delivery.js';

/** notification.*: preferences (preferences.ts); delivery runs after commit in the server's worker processes (delivery.ts). */
export const notificationHandlers = family('notification', { getPreferences, updatePreferences });

/** The notification family, as domain/deployed.ts lists it. */
export const notificationFamily: Family = {
  name: 'notification',
  methods: notificationHandlers,
  background: (deps) => startDelivery(deps, { pollMs: deps.config.notifyPollMs }),
};
