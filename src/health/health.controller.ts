import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { LivenessReply, ReadinessReply } from './health.reply';
import { HealthService } from './health.service';

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({
    summary: 'Liveness: the process answers (no dependency is asked). For a liveness probe or Docker HEALTHCHECK.',
  })
  @ApiEnvelope(LivenessReply, ENDPOINT_ERRORS.health.live)
  live(): LivenessReply {
    return this.health.live();
  }

  @Get('ready')
  @ApiOperation({
    summary:
      'Readiness: the database answers within READY_TIMEOUT_MS (and Redis, with READY_REQUIRES_REDIS=true). Otherwise, and while shutting down, HTTP 503 with code 1500 and a msg naming what is down. Redis is reported either way.',
  })
  @ApiEnvelope(ReadinessReply, ENDPOINT_ERRORS.health.ready)
  ready(): Promise<ReadinessReply> {
    return this.health.ready();
  }
}
