import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { TokenExpiredError } from 'jsonwebtoken';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { type User, disabledMessage, isDisabledAt } from '../users/user';
import { UsersService } from '../users/users.service';
import { AuthUser } from '../common/auth-user';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';

/** Audience of IM tokens: a JWT minted for anything else (a host session, say) is refused. */
export const IM_TOKEN_AUDIENCE = 'im-sdk';
const ALGORITHM = 'HS256';

interface ImTokenClaims {
  user_id: string;
  uid: string;
  tv: number;
  exp: number;
  iat: number;
  aud: string;
}

/** Verified tokens kept per instance (oldest dropped first): every SDK request presents one. */
const VERIFIED_MAX = 10_000;

/** A verified token: who, and until when (Unix seconds) under which token version. */
export interface VerifiedToken {
  user: AuthUser;
  expireAt: number;
  tokenVersion: number;
}

export interface IssuedToken {
  token: string;
  /** Unix seconds; equals the JWT's `exp`. */
  expireAt: number;
}

@Injectable()
export class ImTokenService {
  /**
   * Claims of tokens whose signature and audience were verified: a token's claims cannot
   * change, so a repeat only needs its expiry checked again (revocation and disabling are
   * checked on every request below, from the user's state). Only verified tokens enter.
   */
  private readonly verified = new Map<string, ImTokenClaims>();

  constructor(
    private readonly settings: RuntimeSettingsService,
    private readonly jwt: JwtService,
    private readonly users: UsersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  issue(user: Pick<User, 'id' | 'externalId' | 'tokenVersion'>): IssuedToken {
    const iat = Math.floor(this.clock.now() / 1000);
    const expireAt = iat + this.config.tokenTtlSeconds;
    const claims: ImTokenClaims = {
      user_id: user.externalId,
      uid: String(user.id),
      tv: user.tokenVersion,
      iat,
      exp: expireAt,
      aud: IM_TOKEN_AUDIENCE,
    };
    const token = this.jwt.sign(claims, { algorithm: ALGORITHM });
    return { token, expireAt };
  }

  /**
   * Verifies signature (HS256 only), audience and expiry, then that the token's version is the
   * user's current one (a forced logout raises it) and that the user is not disabled.
   */
  async verify(token: string): Promise<AuthUser> {
    return (await this.authenticate(token)).user;
  }

  /** verify, with the token's expiry and version (a live connection watches both). */
  async authenticate(token: string): Promise<VerifiedToken> {
    if (!this.settings.current.sdkEnabled) {
      const where = this.settings.view.overridden.includes('sdk_enabled')
        ? 'in the admin console'
        : 'SDK_ENABLED=false';
      throw new AppError(ErrorCode.SDK_DISABLED, `the SDK is switched off on this service (${where})`);
    }
    const now = Math.floor(this.clock.now() / 1000);
    let claims = this.verified.get(token);
    if (claims && now >= claims.exp) {
      this.verified.delete(token);
      throw new AppError(ErrorCode.TOKEN_EXPIRED, 'token expired');
    }
    if (!claims) claims = this.verifySignature(token, now);
    const state = await this.users.findAuthState(claims.uid);
    if (!state || state.externalId !== claims.user_id || state.tokenVersion !== claims.tv) {
      throw new AppError(ErrorCode.TOKEN_INVALID, 'token invalid');
    }
    if (isDisabledAt(state, this.clock.now())) throw new AppError(ErrorCode.USER_DISABLED, disabledMessage(state));
    return {
      user: { internalId: String(state.id), externalId: state.externalId },
      expireAt: claims.exp,
      tokenVersion: claims.tv,
    };
  }

  private verifySignature(token: string, now: number): ImTokenClaims {
    let claims: ImTokenClaims;
    try {
      claims = this.jwt.verify<ImTokenClaims>(token, {
        algorithms: [ALGORITHM],
        audience: IM_TOKEN_AUDIENCE,
        clockTimestamp: now,
      });
    } catch (error) {
      if (error instanceof TokenExpiredError) throw new AppError(ErrorCode.TOKEN_EXPIRED, 'token expired');
      throw new AppError(ErrorCode.TOKEN_INVALID, 'token invalid');
    }
    if (
      typeof claims.user_id !== 'string' ||
      typeof claims.uid !== 'string' ||
      !/^[1-9][0-9]{0,18}$/.test(claims.uid) ||
      !Number.isInteger(claims.tv) ||
      !Number.isInteger(claims.exp)
    ) {
      throw new AppError(ErrorCode.TOKEN_INVALID, 'token invalid');
    }
    if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, claims);
    return claims;
  }
}
