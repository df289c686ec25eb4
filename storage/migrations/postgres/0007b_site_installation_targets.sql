-- Site installations now point at real sites: site ids are checked when
-- installing (a site of the installation's organization), and a site's
-- installations go with it when it is deleted (storage siteRemovalHooks,
-- in the same transaction).
--
-- Drop what earlier versions accepted unchecked: site installations on ids
-- that are no sites, or on sites of another organization than their
-- installation's. (This file must sort after 0007: on a new database the
-- sites follow-ups of 0005a run before the integration tables exist.)
DELETE FROM integration_external_ids WHERE kind = 'site' AND NOT EXISTS (
    SELECT 1 FROM sites st JOIN integration_installations x ON x.organization_id = st.organization_id
    WHERE st.id = integration_external_ids.target_id AND x.id = integration_external_ids.installation_id);
DELETE FROM integration_target_installations WHERE kind = 'site' AND NOT EXISTS (
    SELECT 1 FROM sites st JOIN integration_installations x ON x.organization_id = st.organization_id
    WHERE st.id = integration_target_installations.target_id AND x.id = integration_target_installations.installation_id);
