-- Idempotency keys remember the params they were first used with, and results that carry a secret (a minted
-- API key) are kept only sealed under the caller's own key (ledger/idempotency.ts, ledger/sealed-frame.ts).
-- Written to run again harmlessly (tests re-run its updates over legacy rows).

-- SHA-256 of the canonical JSON of the params as validated. NULL on rows from before: they replay as they did.
ALTER TABLE idempotency ADD COLUMN IF NOT EXISTS params_hash text;

-- The committed frame of a secret-bearing call, AES-256-GCM under a key derived from the calling API key
-- (never stored): only a retry with that same key opens it. `frame` then holds the same result with the
-- secret fields null.
ALTER TABLE idempotency ADD COLUMN IF NOT EXISTS sealed_frame text;

-- Frames stored before this migration by the methods that mint a key hold the secret in clear: withhold it.
-- The rows stay, so a retry still replays (without the secret) instead of minting a second key.
UPDATE idempotency
   SET frame = jsonb_set(
         jsonb_set(frame::jsonb, '{result,apiKey}', 'null'::jsonb),
         '{result,secretWithheld}',
         to_jsonb('apiKey withheld: this replays the first call made with this idempotency key, whose secret was shown once and is no longer kept by the server. If it was lost, revoke '
                  || (frame::jsonb #>> '{result,keyId}') || ' (settings.revokeApiKey) and mint a new key with a new idempotency key.')
       )::text
 WHERE method IN ('org.mintApiKey', 'settings.mintApiKey')
   AND frame IS NOT NULL
   AND jsonb_typeof(frame::jsonb #> '{result,apiKey}') = 'string';

UPDATE idempotency
   SET frame = jsonb_set(
         jsonb_set(frame::jsonb, '{result,adminKey}', 'null'::jsonb),
         '{result,secretWithheld}',
         to_jsonb('adminKey withheld: this replays the first call made with this idempotency key, whose secret was shown once and is no longer kept by the server. If it was lost, an operator mints a new admin key for org '
                  || (frame::jsonb #>> '{result,slug}') || ' (npm run cli -- key mint --org ' || (frame::jsonb #>> '{result,slug}')
                  || ' --name admin --tier admin), or delete ' || (frame::jsonb #>> '{result,orgId}') || ' (org.delete) and create another org.')
       )::text
 WHERE method = 'org.create'
   AND frame IS NOT NULL
   AND jsonb_typeof(frame::jsonb #> '{result,adminKey}') = 'string';

-- A key an operator chose (BOOTSTRAP_ADMIN_KEY) kept its first 9 characters in clear; generated keys start with
-- `wops_` followed by random characters. Keep nothing of the others (domain/org/keys.ts no longer stores it).
UPDATE api_keys SET key_prefix = '' WHERE key_prefix <> '' AND key_prefix NOT LIKE 'wops\_%';
