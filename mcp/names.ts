/**
 * Tool names: the method name with its dot replaced by an underscore (`board.createTask` -> `board_createTask`),
 * a read's path likewise (`approval.wait` -> `approval_wait`, `org/whoami` -> `org_whoami`). The MCP spec allows
 * dots, but several model APIs accept only [a-zA-Z0-9_-] in tool names, so underscores it is; a path parameter's
 * braces go (`org/members/{id}` -> `org_members_id`).
 */
export const toolNameFor = (target: string): string => target.replace(/[{}]/g, '').replace(/[./]/g, '_');
