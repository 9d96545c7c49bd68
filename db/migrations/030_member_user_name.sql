-- A member's sign-in name at its identity provider (SCIM userName, e.g. Entra's userPrincipalName), when it is
-- not the work email. NULL: the email serves (every existing member). Unique in the org ignoring case, like email.
ALTER TABLE principals ADD COLUMN user_name text;
CREATE UNIQUE INDEX principals_user_name ON principals (org_id, lower(user_name)) WHERE user_name IS NOT NULL;
-- The name a member signs in with (user_name, else the email): SCIM's `userName eq` lookups and the check that
-- no two members share one (domain/member/model.ts checkUnique) read it.
CREATE INDEX principals_sign_in_name ON principals (org_id, lower(coalesce(user_name, email)));
