import { Module } from '@nestjs/common';
import { RelationshipChanges } from './relationship-changes';

/** RelationshipChanges, which friends and groups announce to and calls listens on, so that neither imports the other. */
@Module({
  providers: [RelationshipChanges],
  exports: [RelationshipChanges],
})
export class RelationshipChangesModule {}
