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
      comment: 'src/common and src/metrics hold what every module uses; they depend on configuration and the database layer only.',
      from: { path: '^src/(common|metrics)/' },
      to: { path: '^src/', pathNot: '^src/(common|config|database|metrics|settings)/' },
    },
    {
      name: 'infrastructure-imports-no-feature-module',
      severity: 'error',
      comment: 'Configuration and the database layer sit below the feature modules.',
      from: { path: '^src/(config|database)/', pathNot: '^src/database/migrations/' },
      to: { path: '^src/', pathNot: '^src/(common|config|database|metrics|settings)/' },
    },
    {
      name: 'tables-stay-in-their-module',
      severity: 'error',
      comment:
        "Only a module's own files use its entities as values (InjectRepository, query builders, manager.insert): " +
        "another module goes through that module's repository. Type-only imports (mapping rows read by a read model) are allowed.",
      from: { path: '^src/([^/]+)/', pathNot: '^src/database/' },
      to: { path: '\\.entity\\.ts$', pathNot: '^src/$1/', dependencyTypesNot: ['type-only'] },
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
