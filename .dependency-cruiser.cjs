/**
 * Module boundaries of src/, checked by `npm run lint` (dependency-cruiser). docs/architecture.md
 * describes the module graph these rules keep.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A file cycle makes load order matter and hides which module depends on which.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'common-imports-no-feature-module',
      severity: 'error',
      comment:
        'src/common and src/metrics hold what every module uses; they depend on configuration, the database layer and the wire contract (plain types) only.',
      from: { path: '^src/(common|metrics)/' },
      to: { path: '^src/', pathNot: '^src/(common|config|contract|database|metrics|settings)/' },
    },
    {
      name: 'infrastructure-imports-no-feature-module',
      severity: 'error',
      comment: 'Configuration and the database layer sit below the feature modules.',
      from: { path: '^src/(config|database)/', pathNot: '^src/database/migrations/' },
      to: { path: '^src/', pathNot: '^src/(common|config|database|metrics|settings)/' },
    },
    {
      name: 'modules-export-services',
      severity: 'error',
      comment:
        "A module's repositories and entities are its own: another module uses the services it exports and the " +
        'plain records it declares (user.ts, conversation.ts, group.ts...). `node ../shared/tools/cross-module-imports.mjs` counts the same.',
      from: { path: '^src/([^/]+)/', pathNot: '^src/database/migrations/' },
      to: { path: '\\.(repository|entity|entities)\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'contract-is-plain',
      severity: 'error',
      comment: 'The contract (reply and event shapes) is imported by the server, the Web SDK and the tests: plain types only.',
      from: { path: '^src/contract/' },
      to: { pathNot: '^src/contract/' },
    },
    {
      name: 'outbox-below-domain',
      severity: 'error',
      comment: 'Every module writes its events to the outbox; the outbox knows none of them (docs/architecture.md).',
      from: { path: '^src/outbox/' },
      to: { path: '^src/', pathNot: '^src/(outbox|contract|common|config|database|metrics|settings)/' },
    },
    {
      name: 'users-below-domain',
      severity: 'error',
      from: { path: '^src/users/' },
      to: { path: '^src/', pathNot: '^src/(users|contract|common|config|database|metrics|settings)/' },
    },
    {
      name: 'conversation-store-below-its-users',
      severity: 'error',
      comment:
        'ConversationStore is the way into conversations, members and messages for calls, groups, friends, media, ' +
        'messages and sync; it depends on none of them, so the module graph has no loop.',
      from: { path: '^src/conversations/' },
      to: { path: '^src/', pathNot: '^src/(conversations|outbox|contract|common|config|database|metrics|settings)/' },
    },
    {
      name: 'groups-and-friends-below-views',
      severity: 'error',
      comment: 'Groups and friends change memberships through ConversationStore; what a viewer sees is conversation-views, above them.',
      from: { path: '^src/(groups|friends)/' },
      to: {
        path: '^src/',
        pathNot:
          '^src/($1|conversations|users|outbox|relationship-changes|im-token|contract|common|config|database|metrics|settings)/',
      },
    },
    {
      name: 'relationship-changes-imports-nothing',
      severity: 'error',
      comment: 'Friends and groups announce, calls listens: the channel itself depends on none of them.',
      from: { path: '^src/relationship-changes/' },
      to: { path: '^src/', pathNot: '^src/(relationship-changes|common)/' },
    },
    {
      name: 'conversation-views-below-features',
      severity: 'error',
      from: { path: '^src/conversation-views/' },
      to: {
        path: '^src/',
        pathNot: '^src/(conversation-views|conversations|groups|users|contract|common|config|database|metrics|settings)/',
      },
    },
    {
      name: 'src-imports-no-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Browser assets (the admin console, the demo chat) resolve their imports in the page.
    exclude: { path: '(\\.spec\\.ts$|^src/[^/]+/assets/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
