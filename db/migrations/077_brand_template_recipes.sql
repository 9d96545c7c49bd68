-- Starter templates (docs/families/branding.md, Starters and regeneration): a template a recipe made remembers the
-- recipe's name (social-square, social-story, banner, slide, email-header, business-card), set once when the recipe
-- adds it and never changed, so branding.regenerateTemplate can run it again on the live foundation. Whether the
-- current revision is the recipe's own or was amended by hand is read from the history (the revision's content
-- hash against those a regeneration made), not stored.
ALTER TABLE brand_templates ADD COLUMN recipe text;
CREATE UNIQUE INDEX brand_templates_recipe ON brand_templates (org_id, recipe) WHERE recipe IS NOT NULL;
