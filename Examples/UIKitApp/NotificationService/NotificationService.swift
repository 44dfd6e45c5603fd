import HeraldServiceExtension

final class NotificationService: RichPushExtension {}
