CREATE TABLE IF NOT EXISTS reservations (
  id varchar(36) PRIMARY KEY,
  shop_id varchar(64) NOT NULL,
  guests int NOT NULL
);
