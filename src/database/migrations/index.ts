import { InitialSchema1732200000000 } from './1732200000000-initial-schema';
import { MessagingCore1732300000000 } from './1732300000000-messaging-core';
import { GroupReadSideState1732400000000 } from './1732400000000-group-read-side-state';
import { UserUnreadTotals1732500000000 } from './1732500000000-user-unread-totals';
import { MemberPeer1732600000000 } from './1732600000000-member-peer';
import { MediaMessageLinks1732700000000 } from './1732700000000-media-message-links';
import { FormerMemberVersions1732800000000 } from './1732800000000-former-member-versions';
import { RetentionIndexes1732900000000 } from './1732900000000-retention-indexes';
import { OutboxDeliveryPositions1733000000000 } from './1733000000000-outbox-delivery-positions';
import { Calls1733100000000 } from './1733100000000-calls';
import { HostApp1733200000000 } from './1733200000000-host-app';
import { AdminConsole1733300000000 } from './1733300000000-admin-console';
import { RuntimeSettings1733500000000 } from './1733500000000-runtime-settings';
import { AdminTotp1733600000000 } from './1733600000000-admin-totp';
import { SmsPhoneSends1733750000000 } from './1733750000000-sms-phone-sends';
import { RoomEventsApplied1733800000000 } from './1733800000000-room-events-applied';
import { Webhooks1733900000000 } from './1733900000000-webhooks';
import { ServerRequests1733910000000 } from './1733910000000-server-requests';
import { UserErasures1734150000000 } from './1734150000000-user-erasures';
import { Push1734200000000 } from './1734200000000-push';
import { OperatorConsole1734300000000 } from './1734300000000-operator-console';
import { Analytics1734310000000 } from './1734310000000-analytics';
import { ClientErrorGroups1734320000000 } from './1734320000000-client-error-groups';
import { ReportTargets1734330000000 } from './1734330000000-report-targets';
import { BrowseIndexes1734340000000 } from './1734340000000-browse-indexes';
import { DisabledUntilIndex1734350000000 } from './1734350000000-disabled-until-index';
import { GroupActivityIndex1734360000000 } from './1734360000000-group-activity-index';
import { ClientErrorRollups1734370000000 } from './1734370000000-client-error-rollups';

/** Every migration, in order. Listed explicitly so the same list works from src/ and dist/. */
export const MIGRATIONS = [
  InitialSchema1732200000000,
  MessagingCore1732300000000,
  GroupReadSideState1732400000000,
  UserUnreadTotals1732500000000,
  MemberPeer1732600000000,
  MediaMessageLinks1732700000000,
  FormerMemberVersions1732800000000,
  RetentionIndexes1732900000000,
  OutboxDeliveryPositions1733000000000,
  Calls1733100000000,
  HostApp1733200000000,
  AdminConsole1733300000000,
  RuntimeSettings1733500000000,
  AdminTotp1733600000000,
  SmsPhoneSends1733750000000,
  RoomEventsApplied1733800000000,
  Webhooks1733900000000,
  ServerRequests1733910000000,
  UserErasures1734150000000,
  Push1734200000000,
  OperatorConsole1734300000000,
  Analytics1734310000000,
  ClientErrorGroups1734320000000,
  ReportTargets1734330000000,
  BrowseIndexes1734340000000,
  DisabledUntilIndex1734350000000,
  GroupActivityIndex1734360000000,
  ClientErrorRollups1734370000000,
];
