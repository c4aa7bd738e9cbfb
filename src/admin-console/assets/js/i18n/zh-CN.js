// 控制台的全部简体中文文本，键与 en.js 一一对应。
export default {
  'common.cancel': '取消',
  'common.empty': '暂无内容。',

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
