package ginrummy;

import java.util.ArrayList;

/**
 * Test stub: the player interface of the EAAI Gin Rummy challenge's framework, as its
 * documentation describes it (one hand per startGame; the engine lays off and scores).
 * Written for rummy-sim's tests from that description; the real framework is Todd Neller's.
 */
public interface GinRummyPlayer {
	/** A new hand: this player's number, the starting player's, and the 10 cards dealt. */
	void startGame(int playerNum, int startingPlayerNum, Card[] cards);

	/** Whether to draw the face-up card on the discard pile (else a face-down one). */
	boolean willDrawFaceUpCard(Card card);

	/** A player drew: the card, or null for the other player's face-down draw. */
	void reportDraw(int playerNum, Card drawnCard);

	/** The card this player discards: one it holds, not a face-up card it just took. */
	Card getDiscard();

	/** A player discarded a card. */
	void reportDiscard(int playerNum, Card discardedCard);

	/** After each discard: null to play on, or melds to knock (and, once the other player
	 * knocked, this player's melds). */
	ArrayList<ArrayList<Card>> getFinalMelds();

	/** A player showed its final melds. */
	void reportFinalMelds(int playerNum, ArrayList<ArrayList<Card>> melds);

	/** The game's scores after a hand, by player number. */
	void reportScores(int[] scores);

	/** A player laid a card off on the other player's meld. */
	void reportLayoff(int playerNum, Card layoffCard, ArrayList<Card> opponentMeld);

	/** A player's whole hand at the end of a hand. */
	void reportFinalHand(int playerNum, ArrayList<Card> hand);
}
