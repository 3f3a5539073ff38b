/** Hand-checked against the 3.0.6 manifest: which implemented tools each example profile serves on 3.0. */
export const EXPECTED_3_0: Record<string, string[]> = {
  'creative-agent': ['build_creative', 'get_adcp_capabilities', 'get_creative_delivery', 'get_creative_features', 'list_creative_formats', 'list_creatives', 'preview_creative', 'sync_creatives'],
  'governance-agent': ['check_governance', 'create_property_list', 'delete_property_list', 'get_adcp_capabilities', 'get_plan_audit_logs', 'get_property_list', 'list_property_lists', 'report_plan_outcome', 'sync_plans', 'update_property_list'],
  'guaranteed-publisher': ['create_media_buy', 'get_adcp_capabilities', 'get_media_buy_delivery', 'get_media_buys', 'get_products', 'list_accounts', 'list_creative_formats', 'list_creatives', 'provide_performance_feedback', 'sync_accounts', 'sync_creatives', 'update_media_buy'],
  'programmatic-seller': ['create_media_buy', 'get_adcp_capabilities', 'get_media_buy_delivery', 'get_media_buys', 'get_products', 'list_accounts', 'list_creative_formats', 'log_event', 'provide_performance_feedback', 'sync_accounts', 'sync_audiences', 'sync_catalogs', 'sync_creatives', 'sync_event_sources', 'update_media_buy'],
  'signals-agent': ['activate_signal', 'get_adcp_capabilities', 'get_signals'],
};
