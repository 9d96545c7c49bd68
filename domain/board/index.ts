import { family, type Family } from '../core/family.js';
import { addTaskAttachment, removeTaskAttachment, taskAttachments, updateTaskAttachment } from './attachments.js';
import { block, claim, complete, heartbeat } from './claims.js';
import { addTaskComment, comment, taskComments } from './comments.js';
import { link } from './links.js';
import { assignTask, create, createTask, decompose, moveTask, updateTask } from './tasks.js';
import { assign, createWorkstream, deleteWorkstream, moveWorkstream, updateWorkstream } from './workstreams.js';
import { boardReads } from './reads.js';
import { boardReferences } from './references.js';
import { boardHeldWork } from './people.js';
import { boardHoldActs } from './hold-acts.js';

export { boardReads } from './reads.js';

/** The board family: all 23 registry methods. */
export const boardHandlers = family('board', {
  // items
  create,
  createTask,
  updateTask,
  moveTask,
  assignTask,
  decompose,
  // claims and work
  claim,
  heartbeat,
  block,
  complete,
  // links, comments, attachments
  link,
  comment,
  addTaskComment,
  taskComments,
  addTaskAttachment,
  updateTaskAttachment,
  removeTaskAttachment,
  taskAttachments,
  // workstreams
  createWorkstream,
  updateWorkstream,
  moveWorkstream,
  deleteWorkstream,
  assign,
});

/** The board family, as domain/deployed.ts lists it. */
export const boardFamily: Family = {
  name: 'board',
  methods: boardHandlers,
  reads: boardReads,
  holdActs: boardHoldActs,
  contributes: { references: boardReferences, heldWork: boardHeldWork },
};

/** Its public face for other families: an item as stored, who holds it, and moving it to someone else. */
export { assigneesOf, getTask, requireTasks } from './model.js';
export { taskHolding, transferTask } from './people.js';
/** Tasks another family hands the board (email.extractAction), in the triage column, without a board event. */
export { addIntakeTasks, type IntakeTask } from './intake.js';
