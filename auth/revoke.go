package auth

import (
	"context"
	"fmt"
)

// Revoke ends an access or refresh token at once (RFC 7009's effect,
// for callers in the server): its digest is removed, so it authenticates
// nothing from then on. An unknown token is no error. The workspace
// revokes the access token of its sign-in as soon as it has read whom it
// names: the person goes on with a session, and the token is never used.
func (s *Service) Revoke(ctx context.Context, token string) error {
	if !wellFormedBearer(token) {
		return nil
	}
	if err := s.Store.DeleteToken(ctx, HashSecret(token)); err != nil && !isNotFound(err) {
		return fmt.Errorf("auth: revoke token: %w", err)
	}
	return nil
}
