import { seededTypes } from './webhook-seeder';

describe('seeded webhook event types', () => {
  const endpoint = (eventTypes: string[] | null) => ({
    url: 'https://h.example/x',
    secret: 's',
    description: '',
    eventTypes,
  });

  it('keeps null (every type) and known types, without repeats', () => {
    expect(seededTypes(endpoint(null), 0)).toBeNull();
    expect(seededTypes(endpoint(['message.new', 'message.new', 'group.created']), 0)).toBe(
      '["message.new","group.created"]',
    );
  });

  it('refuses unknown, per-user-only or no types, naming the entry', () => {
    expect(() => seededTypes(endpoint(['nope']), 2)).toThrow(/WEBHOOK_ENDPOINTS\[2\]\.event_types.*unknown: nope/);
    expect(() => seededTypes(endpoint(['conversation.read']), 0)).toThrow(/unknown: conversation\.read/);
    expect(() => seededTypes(endpoint([]), 0)).toThrow(/non-empty/);
  });
});
