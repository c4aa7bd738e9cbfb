// Every string the console shows in English. Keys are `area.thing`; `{name}` is filled by t().
export default {
  'common.cancel': 'Cancel',
  'common.empty': 'Nothing to show.',

  // ---- shell ----

  // ---- login ----

  // ---- dashboard ----

  // ---- analytics ----

  // ---- reports ----

  // ---- users ----

  // ---- groups ----

  // ---- client-errors ----

  // ---- settings ----

  // ---- webhooks ----

  // ---- push ----

  // ---- audit ----

  // ---- admins ----

  // ---- account ----
};
