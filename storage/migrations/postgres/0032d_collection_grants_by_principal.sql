-- See the SQLite migration of the same name (a member's
-- collection grants, never past their space grants).
CREATE INDEX content_grants_collections_by_principal ON content_grants (organization_id, principal_kind, principal_id, target_id)
WHERE target_kind = 'collection';
