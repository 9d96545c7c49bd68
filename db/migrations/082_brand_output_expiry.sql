-- Renders and exports past their retain_until become expired (the branding.expireOutputs job, decision 0083): a
-- revision with status expired is written and the asset's blob references are dropped, so the blob store's GC may
-- collect the bytes after its grace period. An expired output is never served again; rendering the same inputs
-- renews it as a new revision.

ALTER TABLE brand_assets DROP CONSTRAINT brand_assets_status_check;
ALTER TABLE brand_assets ADD CONSTRAINT brand_assets_status_check CHECK (status IN ('active', 'archived', 'expired'));
ALTER TABLE brand_asset_revisions DROP CONSTRAINT brand_asset_revisions_status_check;
ALTER TABLE brand_asset_revisions ADD CONSTRAINT brand_asset_revisions_status_check CHECK (status IN ('active', 'archived', 'expired'));
