import type { ConnectionDevice } from './socket-device';

/** Connections listed on the user page, newest first; the count covers them all. */
export const USER_CONNECTIONS_LISTED = 50;

export interface ListedConnection extends ConnectionDevice {
  /** The instance holding the connection: its host name and process ID (the `pid` of its log lines). */
  instance: string;
}

/** One user's connections on every instance that answered: the count, and the newest of them listed. */
export interface UserConnections {
  /** Connections on the instances that answered, listed or not. */
  sockets: number;
  /** Instances that answered, this one included. */
  instances: number;
  /** False when an instance did not answer in time (its connections are missing). */
  complete: boolean;
  /** Newest first, at most USER_CONNECTIONS_LISTED. */
  devices: ListedConnection[];
  /** More connections than listed. */
  truncated: boolean;
}

/** What one instance answers over the adapter (plain JSON: it crosses Redis). */
export interface ConnectionAnswer {
  instance: string;
  total: number;
  connections: ConnectionDevice[];
}

/** This instance's answer: every connection counted, the newest listed (no instance sends more than the page lists). */
export function answerOf(instance: string, local: ConnectionDevice[]): ConnectionAnswer {
  const newest = [...local].sort((a, b) => b.connectedAt - a.connectedAt).slice(0, USER_CONNECTIONS_LISTED);
  return { instance, total: local.length, connections: newest };
}

const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;
const nullableText = (value: unknown, max: number): value is string | null => value === null || text(value, max);
const count = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function readDevice(raw: unknown): ConnectionDevice | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const d = raw as Record<keyof ConnectionDevice, unknown>;
  if (
    !nullableText(d.platform, 16) ||
    !nullableText(d.deviceId, 128) ||
    !nullableText(d.appVersion, 32) ||
    !nullableText(d.userAgent, 64) ||
    !nullableText(d.address, 64) ||
    !count(d.connectedAt)
  )
    return null;
  return {
    platform: d.platform,
    deviceId: d.deviceId,
    appVersion: d.appVersion,
    userAgent: d.userAgent,
    address: d.address,
    connectedAt: d.connectedAt,
  };
}

/** Another instance's answer, checked field by field; null when it is not one (an older version's count). */
export function readAnswer(raw: unknown): ConnectionAnswer | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const a = raw as Record<keyof ConnectionAnswer, unknown>;
  if (!text(a.instance, 64) || !count(a.total) || !Array.isArray(a.connections)) return null;
  const connections = a.connections.slice(0, USER_CONNECTIONS_LISTED).map(readDevice);
  if (connections.some((c) => c === null)) return null;
  return {
    instance: a.instance,
    total: Math.max(a.total, connections.length),
    connections: connections as ConnectionDevice[],
  };
}

/** The answers as one list: newest first across instances, at most USER_CONNECTIONS_LISTED. */
export function mergeConnections(
  answers: ConnectionAnswer[],
): Pick<UserConnections, 'sockets' | 'devices' | 'truncated'> {
  const sockets = answers.reduce((sum, a) => sum + a.total, 0);
  const devices = answers
    .flatMap((a) => a.connections.map((c) => ({ ...c, instance: a.instance })))
    .sort((a, b) => b.connectedAt - a.connectedAt)
    .slice(0, USER_CONNECTIONS_LISTED);
  return { sockets, devices, truncated: sockets > devices.length };
}
