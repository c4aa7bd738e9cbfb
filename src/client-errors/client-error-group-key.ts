import { createHash } from 'node:crypto';

/** The spec's severities (4.2), least to most severe; a group shows the most severe one reported. */
export const SEVERITY_RANKS = { normal: 1, serious: 2, fatal: 3 } as const;
export type Severity = keyof typeof SEVERITY_RANKS;

export function severityRank(severity: string): number {
  return SEVERITY_RANKS[severity as Severity] ?? SEVERITY_RANKS.normal;
}

export function severityOfRank(rank: number): Severity {
  return (Object.keys(SEVERITY_RANKS) as Severity[]).find((s) => SEVERITY_RANKS[s] === rank) ?? 'normal';
}

/**
 * A build_id of null and of "" both mean "no build" for grouping: the SDK sends either, and an
 * operator cannot tell them apart. Groups store "" for it.
 */
export function groupBuild(buildId: string | null): string {
  return buildId ?? '';
}

/**
 * The key of the group of (error code, platform, build): a hash, so that one short unique
 * column stands for three (a build of up to 128 characters would make a long composite key),
 * and so that the rollup tables can name their group without reading it first.
 */
export function clientErrorGroupKey(errorCode: string, platform: string, buildId: string | null): string {
  return createHash('sha256')
    .update(JSON.stringify([errorCode, platform, groupBuild(buildId)]))
    .digest('hex');
}
