package dev.lambdaoutbox.grants;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.BudgetedExecutor;
import dev.lambdaoutbox.testing.GrantedUsers;
import dev.lambdaoutbox.testing.GrantedUsers.GrantedUser;
import java.util.List;

/**
 * Least privilege for the statements Aurora MySQL runs over the Data API (sized to what one
 * response may hold), over JDBC against MariaDB, since no emulator serves MySQL. They touch the
 * tables the unsized ones do, so each grant is taken away in {@link MariaDbLeastPrivilegeTest}
 * only.
 */
class MariaDbSizedLeastPrivilegeTest extends MariaDbLeastPrivilegeTest {
  @Override
  SqlExecutor executor(GrantedUser user, GrantedUsers users, List<AutoCloseable> closing) {
    return BudgetedExecutor.dataApi(super.executor(user, users, closing));
  }

  @Override
  boolean takesEachGrantAway() {
    return false;
  }
}
