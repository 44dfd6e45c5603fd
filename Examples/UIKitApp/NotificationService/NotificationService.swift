import HeraldNotificationService

final class NotificationService: HeraldNotificationService {}
