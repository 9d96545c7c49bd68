import { family, type Family } from '../../core/family.js';
import { deactivate } from './offboard.js';
import { updateRole } from './role.js';

/** user.*: a human's role (the ceiling of its keys) and offboarding. admin.* suspends and reactivates anyone. */
export const userHandlers = family('user', { updateRole, deactivate });

/** The user family, as domain/deployed.ts lists it. */
export const userFamily: Family = { name: 'user', methods: userHandlers };
