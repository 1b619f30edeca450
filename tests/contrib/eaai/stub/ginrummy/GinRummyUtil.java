package ginrummy;

/** Test stub of the framework's GinRummyUtil: the constants of its rules. */
public class GinRummyUtil {
	public static final int GOAL_SCORE = 100;
	public static final int GIN_BONUS = 25;
	public static final int UNDERCUT_BONUS = 25;
	public static final int MAX_DEADWOOD = 10;
}
