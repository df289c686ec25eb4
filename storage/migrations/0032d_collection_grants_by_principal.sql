-- A member's cached access holds their collection grants whole
-- and their space grants only up to a bound (access_grants.go), so loading
-- it reads the collection grants of the member and their teams alone: by
-- this index, never past their space grants (content_grants_by_principal
-- holds both kinds, so a reader granted 10,000 spaces read them all).
CREATE INDEX content_grants_collections_by_principal ON content_grants (organization_id, principal_kind, principal_id, target_id)
WHERE target_kind = 'collection';
