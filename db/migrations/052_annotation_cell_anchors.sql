-- Cell threads keep their tab like doc threads (anchor_tab), so a row or column op on the tab re-anchors them in its
-- transaction; slide threads keep their slide id in anchor_block. The check that only doc blocks had a tab widens.
DO $$
DECLARE c text;
BEGIN
  SELECT conname INTO c FROM pg_constraint
   WHERE conrelid = 'annotations'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%anchor_tab IS NOT NULL%';
  EXECUTE format('ALTER TABLE annotations DROP CONSTRAINT %I', c);
END $$;
ALTER TABLE annotations ADD CONSTRAINT annotations_anchor_tab CHECK ((selector_type IN ('block', 'cell')) = (anchor_tab IS NOT NULL));
