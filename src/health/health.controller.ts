import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi';
import { HealthReply, HealthService } from './health.service';

class HealthDoc {
  @ApiProperty({ example: 'ok' }) status: string;
  @ApiProperty({ example: 'up' }) database: string;
}

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ summary: 'Liveness and database reachability (HTTP 500, code 1500, when the database does not answer).' })
  @ApiEnvelope(HealthDoc, [1500])
  check(): Promise<HealthReply> {
    return this.health.check();
  }
}
