package ginrummy;

/**
 * Test stub of the framework's Card: one object per card, ids suit * 13 + rank with the
 * framework's documented suit order (C, H, S, D) and rank order (A ... K), and a name such
 * as "TH" (rank name then suit name).
 */
public class Card {
	public static final String[] rankNames = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"};
	public static final String[] suitNames = {"C", "H", "S", "D"};
	public static final int NUM_RANKS = 13;
	public static final int NUM_SUITS = 4;
	public static final int NUM_CARDS = 52;
	public static final Card[] allCards = new Card[NUM_CARDS];

	static {
		for (int suit = 0; suit < NUM_SUITS; suit++)
			for (int rank = 0; rank < NUM_RANKS; rank++)
				allCards[suit * NUM_RANKS + rank] = new Card(rank, suit);
	}

	public final int rank;
	public final int suit;

	private Card(int rank, int suit) {
		this.rank = rank;
		this.suit = suit;
	}

	public static Card getCard(int id) {
		return allCards[id];
	}

	public static Card getCard(int rank, int suit) {
		return allCards[suit * NUM_RANKS + rank];
	}

	public int getRank() {
		return rank;
	}

	public int getSuit() {
		return suit;
	}

	public int getId() {
		return suit * NUM_RANKS + rank;
	}

	@Override
	public String toString() {
		return rankNames[rank] + suitNames[suit];
	}
}
