import { compilePlaybook, deletePlaybook, listPlaybooks, savePlaybook, togglePlaybook } from './store.js';
import { runNextBestAction } from './nba.js';
import { taskFollowThrough } from './follow.js';

/* Playbooks and next best action: this area's handlers, one spread in domain/crm/index.ts's family map. */
export const crmPlaybookHandlers = { compilePlaybook, savePlaybook, togglePlaybook, deletePlaybook, listPlaybooks, runNextBestAction, taskFollowThrough };
