-- At each start the branding family looks for orgs with outputs past their retain_until (domain/branding/retention.ts
-- scheduleOverdueExpiry, decision 0083): without an index on retain_until that read every revision of every asset.
-- Only renders and exports carry a retain_until (images keep NULL), so the index holds their revisions alone, in date
-- order: the start-up reads only the revisions already due from it, then matches them to their assets.

CREATE INDEX brand_asset_revisions_retain_until ON brand_asset_revisions (retain_until) WHERE retain_until IS NOT NULL;
