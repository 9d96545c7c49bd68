import { ok, type Caller } from './calls.js';

/** Board records other families' tests work on, with names of their own. */

let counter = 0;

/** A new task (`task <n>`, plus `extra`) by `key` or the admin: its Task. */
export async function newTask(on: Caller, extra: Record<string, unknown> = {}, key?: string): Promise<any> {
  return ok(on, 'board.createTask', { title: `task ${++counter}`, ...extra }, key);
}

/** A new workstream (`stream <n>`, plus `extra`): its Workstream. */
export async function newWorkstream(on: Caller, extra: Record<string, unknown> = {}, key?: string): Promise<any> {
  return ok(on, 'board.createWorkstream', { name: `stream ${++counter}`, ...extra }, key);
}
