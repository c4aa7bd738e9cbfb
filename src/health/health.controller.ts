import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi';
import { HealthService, LivenessReply, ReadinessReply } from './health.service';

class LivenessDoc {
  @ApiProperty({ example: 'ok' }) status: string;
}

class ReadinessDoc {
  @ApiProperty({ example: 'ready' }) status: string;
  @ApiProperty({ example: 'up' }) database: string;
  @ApiProperty({ example: 'up', enum: ['up', 'down', 'disabled'], description: '`disabled` without REDIS_URL; `down` during a Redis outage (ready all the same unless READY_REQUIRES_REDIS=true)' })
  redis: string;
}

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ summary: 'Liveness: the process answers (no dependency is asked). For a liveness probe or Docker HEALTHCHECK.' })
  @ApiEnvelope(LivenessDoc, [])
  live(): LivenessReply {
    return this.health.live();
  }

  @Get('ready')
  @ApiOperation({
    summary:
      'Readiness: the database answers within READY_TIMEOUT_MS (and Redis, with READY_REQUIRES_REDIS=true). Otherwise, and while shutting down, HTTP 503 with code 1500 and a msg naming what is down. Redis is reported either way.',
  })
  @ApiEnvelope(ReadinessDoc, [1500])
  ready(): Promise<ReadinessReply> {
    return this.health.ready();
  }
}
